@cap:tags
Feature: Creating tags
  Someone granted CREATE_TAGS or MANAGE_TAGS creates a tag with an id, a name and a
  description. The answer is the new tag's URN, urn:li:tag:<id>, as a plain string, and the
  tag reads back by URN and through both entity paths. An id names one tag only: creating
  it a second time is refused as DataHub refuses it (BAD_REQUEST, "This Tag already
  exists!") and leaves the first tag as it was. Without either privilege the request is
  rejected and no tag is made; no other privilege stands in for them.

  Background:
    Given Ann holds a personal access token

  @id:tag-01 @must @smoke
  Scenario: Someone granted CREATE_TAGS creates a tag
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @id:tag-02 @must @core
  Scenario: Someone granted MANAGE_TAGS creates a tag
    Given Ann is granted MANAGE_TAGS
    When Ann creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @id:tag-03 @must @core
  Scenario Outline: A new tag reads back through the <tier> entity path
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the tag reads back with its name and description through the <tier> entity path

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:tag-04 @must @core
  Scenario: A tag made without an id gets a random one
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag without an id
    Then the answer is the URN of a tag with a random id
    And the tag exists with its name and description

  @id:tag-05 @must @core
  Scenario: A tag id can be used only once
    Given Ann is granted CREATE_TAGS
    And Ann has created a tag
    When Ann creates another tag with the same id
    Then the request is refused as DataHub refuses a tag that exists
    And the first tag is unchanged

  @id:tag-06 @must @core
  Scenario: Someone granted neither privilege cannot create a tag
    When Ann creates a tag
    Then Ann is rejected as unauthorized
    And the tag does not exist

  @id:tag-07 @must @core
  Scenario Outline: Someone granted only <privilege> cannot create a tag
    Given Ann is granted <privilege>
    When Ann creates a tag
    Then Ann is rejected as unauthorized
    And the tag does not exist

    Examples:
      | privilege            |
      | DELETE_ENTITY        |
      | EDIT_ENTITY          |
      | MANAGE_POLICIES      |
      | MANAGE_ACCESS_TOKENS |

  @id:tag-08 @should @core
  Scenario Outline: Reading a tag by <a URN that is not a tag's> is refused as a bad request
    When Ann reads a tag by <a URN that is not a tag's>
    Then the answer is a GraphQL error saying the request is bad

    Examples:
      | a URN that is not a tag's |
      | a malformed URN           |
      | a dataset's URN           |
