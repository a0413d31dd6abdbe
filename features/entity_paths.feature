@cap:entity-paths
Feature: Entity paths
  An entity is read by its URN at /entities/<urn> on the metadata service and at
  /api/gms/entities/<urn> on the frontend. Both give the same entity, whether the URN is
  written raw or percent-encoded. Any privilege on an entity (VIEW_ENTITY_PAGE,
  GET_ENTITY_PRIVILEGE, EDIT_ENTITY, DELETE_ENTITY) lets one read it; someone without one
  is refused (403), though everyone may read their own user entity.
  DataHub answers a URN that was never written with its key aspect alone; answering
  404 Not Found for it, as the reference does, is recommended (RFC 9110 section 15.5.5),
  and so is refusing a malformed URN with 400 Bad Request.

  Background:
    Given Ann holds a personal access token

  @id:entity-01 @must @smoke
  Scenario Outline: A tag reads through the <tier> entity path with a <form> URN
    Given a tag exists
    When Ann reads the tag through the <tier> entity path with a <form> URN
    Then the answer is the tag's snapshot with its name and description

    Examples:
      | tier               | form            |
      | metadata service's | raw             |
      | metadata service's | percent-encoded |
      | frontend's         | raw             |
      | frontend's         | percent-encoded |

  @id:entity-02 @must @core
  Scenario Outline: Another user reads through the <tier> entity path with a <form> URN
    Given Bob is a user
    When Ann reads Bob's user entity through the <tier> entity path with a <form> URN
    Then the answer is Bob's user snapshot

    Examples:
      | tier               | form            |
      | metadata service's | raw             |
      | metadata service's | percent-encoded |
      | frontend's         | raw             |
      | frontend's         | percent-encoded |

  @id:entity-03 @must @core
  Scenario: Both entity paths give the same answer
    Given a tag exists
    When Ann reads the tag through both entity paths
    Then both answers are the same

  @id:entity-04 @should @core
  Scenario Outline: An entity that does not exist is not found through the <tier> entity path
    When Ann reads a tag that does not exist through the <tier> entity path
    Then the answer has status 404

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:entity-05 @should @core
  Scenario Outline: A malformed URN is refused as a bad request through the <tier> entity path
    When Ann reads an entity by a malformed URN through the <tier> entity path
    Then the answer has status 400

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  # Every user may read entities through a policy the service starts with. These
  # scenarios switch such policies off while they run, so they run alone.
  @id:entity-06 @must @core @exclusive
  Scenario Outline: Someone not allowed to read entities is refused through the <tier> entity path
    Given a tag exists
    And no policy lets every user read entities
    When Ann reads the tag through the <tier> entity path with a raw URN
    Then the answer has status 403
    And the answer explains itself in JSON with its status and a message

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:entity-07 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the tag reads it
    Given a tag exists
    And no policy lets every user read entities
    And Ann is granted <privilege> on that tag only
    When Ann reads the tag through the metadata service's entity path with a raw URN
    Then the answer is the tag's snapshot with its name and description

    Examples:
      | privilege            |
      | VIEW_ENTITY_PAGE     |
      | GET_ENTITY_PRIVILEGE |
      | EDIT_ENTITY          |
      | DELETE_ENTITY        |

  @id:entity-08 @must @core @exclusive
  Scenario: Someone granted VIEW_ENTITY_PAGE on one tag reads it, and no other entity
    Given a tag exists
    And Bob is a user
    And no policy lets every user read entities
    And Ann is granted VIEW_ENTITY_PAGE on that tag only
    When Ann reads the tag through the metadata service's entity path with a raw URN
    Then the answer is the tag's snapshot with its name and description
    But Ann is refused when she reads Bob's user entity

  @id:entity-09 @must @core @exclusive
  Scenario: Everyone may read their own user entity
    Given Bob is a user
    And no policy lets every user read entities
    When Ann reads her own user entity through the metadata service's entity path with a raw URN
    Then the answer is Ann's user snapshot
    But Ann is refused when she reads Bob's user entity
