@cap:openapi
Feature: Entities over OpenAPI v3, as DataHub's SDK writes and reads them
  When the server's /config names a DataHub version of 1.0.1 or later, DataHub's Python SDK
  writes through the OpenAPI v3 entity endpoints instead of Rest.li. Each proposal becomes
  an item {"urn": <urn>, <aspect name>: {"value": ..., "systemMetadata": ..., "headers": {}}}
  of a POST to /openapi/v3/entity/<entity type>?async=false, one request per entity type
  however many entities and aspects it carries; a proposal to delete becomes
  DELETE /openapi/v3/entity/<entity type>/<urn>. The SDK reads entities in a batch with
  POST /openapi/v3/entity/<entity type>/batchGet, and the service answers one entity at
  GET /openapi/v3/entity/<entity type>/<urn> and one of its aspects at
  GET /openapi/v3/entity/<entity type>/<urn>/<aspect name>. Every request in this feature
  is shaped as the SDK shapes it.

  Writing needs EDIT_ENTITY, reading one of VIEW_ENTITY_PAGE, GET_ENTITY_PRIVILEGE,
  EDIT_ENTITY or DELETE_ENTITY (but for one's own user entity, which everyone may read),
  deleting DELETE_ENTITY. DataHub checks a write against the
  entity type alone, so a grant on one dataset does not let one write even that dataset
  here; checking every entity of the request, as the reference does, is recommended.
  A request that cannot be carried out whole changes nothing, and a malformed one is refused
  with 400 and a JSON body that says why. One request may name the same aspect of an entity
  more than once: each is written over the one before, so the later value is kept. Deleting an entity that does not exist is done
  already: DataHub acknowledges it, makes nothing, and still refuses it to someone who may
  not delete.

  Background:
    Given Ann holds a personal access token

  @id:openapi-01 @must @smoke
  Scenario: The server names a DataHub version of 1.0.1 or later, so DataHub's SDK writes through OpenAPI
    When someone without a token reads the server configuration
    Then the configuration names a DataHub version of 1.0.1 or later

  @id:openapi-02 @must @smoke
  Scenario Outline: Someone granted EDIT_ENTITY writes a dataset's properties through OpenAPI on the <tier>, and they read back
    Given Ann is granted EDIT_ENTITY
    When Ann writes a description for a new dataset through OpenAPI on the <tier>
    Then the write is answered with the dataset and its properties
    And the dataset's description reads back through the metadata service's entity path

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:openapi-03 @must @core
  Scenario: One request through OpenAPI writes several entities and aspects, and each reads back
    Given Ann is granted EDIT_ENTITY
    When Ann writes proposals for two new datasets in one request through OpenAPI
    Then the write is acknowledged
    And every proposal of the batch reads back
    And DataHub's SDK finds that each dataset of the batch exists

  @id:openapi-04 @must @core
  Scenario: A write through OpenAPI for asynchronous ingestion is written
    Given Ann is granted EDIT_ENTITY
    When Ann writes proposals for two new datasets in one request through OpenAPI for asynchronous ingestion
    Then the write is acknowledged
    And every proposal of the batch reads back

  @id:openapi-24 @must @core
  Scenario: A write through OpenAPI of more than a MiB, as DataHub's SDK may send one, is written
    Given Ann is granted EDIT_ENTITY
    When Ann writes proposals for two new datasets of more than a MiB in one request through OpenAPI
    Then the write is acknowledged
    And every proposal of the batch reads back

  @id:openapi-29 @must @core
  Scenario: A write through OpenAPI that names one aspect of a dataset twice keeps the later value, and every other
    Given Ann is granted EDIT_ENTITY
    When Ann writes proposals that describe a new dataset twice, differently, in one request through OpenAPI
    Then the write is answered with the dataset once, with its later description
    And the later description reads back, and every other proposal of the batch

  @id:openapi-05 @must @smoke
  Scenario: A dataset reads back whole through OpenAPI, each aspect with its value
    Given the administrator has written a new dataset with a description and institutional memory
    When Ann reads the dataset through OpenAPI
    Then the OpenAPI answer names the dataset and holds its properties, institutional memory and key, each with its value

  @id:openapi-06 @must @core
  Scenario: One aspect of a dataset reads back through OpenAPI
    Given the administrator has written a new dataset with a description
    When Ann reads the dataset's properties through OpenAPI
    Then the OpenAPI answer is the dataset's properties with its description

  @id:openapi-07 @must @core
  Scenario: DataHub's SDK reads datasets in a batch through OpenAPI, and one no one has written is left out
    Given the administrator has written a new dataset with a description and institutional memory
    When Ann reads the dataset's properties and a dataset no one has written in a batch through OpenAPI
    Then the answer lists the dataset with its properties, and not the other

  @id:openapi-08 @must @core
  Scenario Outline: Reading <what> through OpenAPI is not found
    When Ann reads <what> through OpenAPI
    Then the answer has status 404

    Examples:
      | what                                     |
      | a dataset no one has written             |
      | the ownership of a dataset that has none |

  # Every user may read entities through a policy the service starts with. These
  # scenarios switch such policies off while they run, so they run alone.
  @id:openapi-09 @must @core @exclusive
  Scenario Outline: Someone not allowed to read entities is refused <what> through OpenAPI
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    When Ann reads <what> through OpenAPI
    Then the answer has status 403
    And the answer shows nothing of the dataset

    Examples:
      | what                         |
      | the dataset                  |
      | the dataset's properties     |
      | the dataset in a batch       |

  @id:openapi-10 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the dataset reads it through OpenAPI
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    And Ann is granted <privilege> on the dataset only
    When Ann reads the dataset through OpenAPI
    Then the OpenAPI answer names the dataset and holds its properties, institutional memory and key, each with its value

    Examples:
      | privilege        |
      | VIEW_ENTITY_PAGE |
      | DELETE_ENTITY    |

  @id:openapi-11 @must @core @exclusive
  Scenario: Someone granted VIEW_ENTITY_PAGE on another dataset is refused this one through OpenAPI
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    And Ann is granted VIEW_ENTITY_PAGE on another dataset only
    When Ann reads the dataset through OpenAPI
    Then the answer has status 403
    And the answer shows nothing of the dataset

  @id:openapi-25 @must @core @exclusive
  Scenario Outline: Everyone reads their own user through <path>, and no one else's
    Given Bob is a user
    And no policy lets every user read entities
    When Ann reads her own user through <path>
    Then the answer is Ann's user, with her info
    But Ann is refused Bob's user through <path>, and shown nothing of him

    Examples:
      | path                      |
      | OpenAPI                   |
      | OpenAPI's aspect path     |
      | OpenAPI in a batch        |

  @id:openapi-26 @must @core @exclusive
  Scenario: Someone who may read only their own user is refused a batch holding another's through OpenAPI
    Given Bob is a user
    And no policy lets every user read entities
    When Ann reads her own user and Bob's in a batch through OpenAPI
    Then the answer has status 403
    And the answer shows nothing of Bob's user

  @id:openapi-12 @must @core
  Scenario: Someone granted EDIT_ENTITY on datasets writes one through OpenAPI
    Given Ann is granted EDIT_ENTITY on datasets
    When Ann writes a description for a new dataset through OpenAPI on the metadata service
    Then the write is answered with the dataset and its properties
    And the dataset's description reads back through the metadata service's entity path

  @id:openapi-13 @should @core
  Scenario: Someone granted EDIT_ENTITY on one dataset writes it through OpenAPI
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann writes a description for that dataset through OpenAPI
    Then the write is answered with the dataset and its properties
    And the dataset's description reads back through the metadata service's entity path

  @id:openapi-14 @must @core
  Scenario: Someone granted EDIT_ENTITY on one dataset cannot write another through OpenAPI
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann writes a description for another new dataset through OpenAPI
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:openapi-15 @must @core
  Scenario: A write through OpenAPI holding a dataset Ann may not write is refused, and none of it is stored
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann writes proposals for that dataset and another new dataset in one request through OpenAPI
    Then the answer has status 403
    And no proposal of the batch was stored

  @id:openapi-16 @must @core
  Scenario Outline: Someone granted only <privilege> cannot write through OpenAPI, and nothing is stored
    Given Ann is granted <privilege>
    When Ann writes proposals for two new datasets in one request through OpenAPI
    Then the answer has status 403
    And no proposal of the batch was stored

    Examples:
      | privilege        |
      | DELETE_ENTITY    |
      | VIEW_ENTITY_PAGE |

  @id:openapi-17 @must @core
  Scenario: Someone granted EDIT_ENTITY on tags cannot write a dataset through OpenAPI
    Given Ann is granted EDIT_ENTITY on tags
    When Ann writes proposals for two new datasets in one request through OpenAPI
    Then the answer has status 403
    And no proposal of the batch was stored

  @id:openapi-18 @must @core
  Scenario: A grant to Bob does not let Ann write his dataset through OpenAPI
    Given Bob holds a personal access token
    And Bob is granted EDIT_ENTITY on a new dataset only
    When Ann writes a description for that dataset through OpenAPI
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:openapi-19 @must @core
  Scenario Outline: A write through OpenAPI <flaw> is refused as a bad request, says why, and stores nothing
    Given Ann is granted EDIT_ENTITY
    When Ann writes through OpenAPI a request <flaw>
    Then the answer has status 400
    And the answer says in JSON why it was refused

    Examples:
      | flaw                              |
      | whose body is not JSON            |
      | holding an entity without a URN   |
      | naming a malformed URN            |

  @id:openapi-20 @should @core
  Scenario Outline: A write through OpenAPI <flaw> is refused as a bad request, and stores nothing
    Given Ann is granted EDIT_ENTITY
    When Ann writes through OpenAPI a request <flaw>
    Then the answer has status 400
    And the answer says in JSON why it was refused

    Examples:
      | flaw                                    |
      | naming an aspect datasets do not have   |
      | sent to the path of another entity type |
      | sent to the path of no entity type      |
      | whose description is not text           |

  @id:openapi-21 @must @core
  Scenario: Someone granted DELETE_ENTITY deletes a dataset through OpenAPI, as the SDK sends a proposal to delete
    Given the administrator has written a new dataset with a description
    And Ann is granted DELETE_ENTITY
    When Ann deletes the dataset through OpenAPI
    Then the deletion is acknowledged
    And nothing was stored for the dataset

  @id:openapi-22 @must @core
  Scenario: Someone granted EDIT_ENTITY but not DELETE_ENTITY cannot delete a dataset through OpenAPI
    Given the administrator has written a new dataset with a description
    And Ann is granted EDIT_ENTITY
    When Ann deletes the dataset through OpenAPI
    Then the answer has status 403
    And the dataset's description reads back through the metadata service's entity path

  @id:openapi-27 @must @core
  Scenario Outline: Someone granted DELETE_ENTITY deletes <what> through OpenAPI: acknowledged, and no dataset is made
    Given Ann is granted DELETE_ENTITY
    When Ann deletes <what> through OpenAPI
    Then the deletion is acknowledged
    And DataHub's SDK finds no such dataset

    Examples:
      | what                              |
      | a dataset no one has written      |
      | a dataset she has deleted already |

  @id:openapi-28 @must @core
  Scenario: Someone granted EDIT_ENTITY but not DELETE_ENTITY is refused the deletion of a dataset no one has written
    Given Ann is granted EDIT_ENTITY
    When Ann deletes a dataset no one has written through OpenAPI
    Then the answer has status 403
    And DataHub's SDK finds no such dataset

  @id:openapi-23 @must @core
  Scenario Outline: A request through OpenAPI without a token is refused when it <does> on the <tier>
    When someone without a token <does> through OpenAPI on the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | does            | tier             |
      | writes          | metadata service |
      | writes          | frontend         |
      | reads an entity | metadata service |
      | reads an entity | frontend         |
      | reads an aspect | metadata service |
      | reads a batch   | metadata service |
      | deletes         | metadata service |
